/**
 * GNS3's compute parses ids with Python's uuid.UUID: 32 hex digits, optionally with dashes in the
 * usual places, braces or a `urn:uuid:` prefix. The raw string is then used for lookups.
 */
const PYTHON_UUID = /^(?:urn:uuid:)?\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;

export function isValidUuid(id: string): boolean {
  return PYTHON_UUID.test(id);
}

/** The canonical form GNS3 schemas require in bodies (36 characters). */
export const CANONICAL_UUID = /^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/;
