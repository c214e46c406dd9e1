/**
 * Plain words for the OS error codes an operator meets (Node's own messages, "bind EMFILE
 * 127.0.0.1:20000", name the code without saying what it means or what to do).
 */
const OS_REASONS: Readonly<Record<string, string>> = {
  EMFILE: "too many open files: netemu reached its file-descriptor limit (raise ulimit -n)",
  ENFILE: "too many open files in the system: the host reached its file-descriptor limit",
  ENOBUFS: "no buffer space available",
  ENOMEM: "out of memory",
  EADDRNOTAVAIL: "the address is not one of this host's",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  ENOTDIR: "a part of the path is not a directory",
  EEXIST: "a file that is not a directory is in the way",
  EISDIR: "it is a directory",
  ENOENT: "no such file or directory",
};

/** "EMFILE (too many open files: ...)", or the code and Node's message for a code not listed. */
export function osReason(code: string, detail: string): string {
  const words = OS_REASONS[code];
  return words === undefined ? `${code} (${detail})` : `${code} (${words})`;
}
