import { SUPPORTED_NODE_TYPES, type NodeType } from "./node.js";

/**
 * A GNS3 node template: what a client names to make a node (gns3fy has no other way). netemu has
 * GNS3 2.2.59's built-in templates only, with their fixed ids (GNS3 derives them as
 * uuid3(NAMESPACE_DNS, <template_type>)) and fields, so scripts written against GNS3 find the same ids.
 */
interface NodeTemplate {
  readonly templateId: string;
  readonly templateType: string;
  readonly name: string;
  /** `{0}` is replaced by the first number that gives a name no node of the project has. */
  readonly defaultNameFormat: string;
  readonly category: "switch" | "guest";
  readonly symbol: string;
  /** Only the Ethernet switch's template sets one. */
  readonly consoleType?: "none";
  /** Only VPCS's template has properties in GNS3 2.2.59: the file its nodes' startup script comes from. */
  readonly properties?: { readonly base_script_file: "vpcs_base_config.txt" };
}

/** Every built-in template of GNS3 2.2.59, in its order (`controller/template_manager.py`). */
export const GNS3_BUILTIN_TEMPLATES: readonly NodeTemplate[] = [
  { templateId: "39e257dc-8412-3174-b6b3-0ee3ed6a43e9", templateType: "cloud", name: "Cloud", defaultNameFormat: "Cloud{0}", category: "guest", symbol: ":/symbols/cloud.svg" },
  { templateId: "df8f4ea9-33b7-3e96-86a2-c39bc9bb649c", templateType: "nat", name: "NAT", defaultNameFormat: "NAT{0}", category: "guest", symbol: ":/symbols/nat.svg" },
  {
    templateId: "19021f99-e36f-394d-b4a1-8aaa902ab9cc",
    templateType: "vpcs",
    name: "VPCS",
    defaultNameFormat: "PC{0}",
    category: "guest",
    symbol: ":/symbols/vpcs_guest.svg",
    properties: { base_script_file: "vpcs_base_config.txt" },
  },
  {
    templateId: "1966b864-93e7-32d5-965f-001384eec461",
    templateType: "ethernet_switch",
    name: "Ethernet switch",
    defaultNameFormat: "Switch{0}",
    category: "switch",
    symbol: ":/symbols/ethernet_switch.svg",
    consoleType: "none",
  },
  { templateId: "b4503ea9-d6b6-3695-9fe4-1db3b39290b0", templateType: "ethernet_hub", name: "Ethernet hub", defaultNameFormat: "Hub{0}", category: "switch", symbol: ":/symbols/hub.svg" },
  { templateId: "dd0f6f3a-ba58-3249-81cb-a1dd88407a47", templateType: "frame_relay_switch", name: "Frame Relay switch", defaultNameFormat: "FRSW{0}", category: "switch", symbol: ":/symbols/frame_relay_switch.svg" },
  { templateId: "aaa764e2-b383-300f-8a0e-3493bbfdb7d2", templateType: "atm_switch", name: "ATM switch", defaultNameFormat: "ATMSW{0}", category: "switch", symbol: ":/symbols/atm_switch.svg" },
];

/** A template whose nodes netemu runs, with its node type narrowed. */
export interface RunnableTemplate extends NodeTemplate {
  readonly templateType: NodeType;
}

export function isRunnable(template: NodeTemplate): template is RunnableTemplate {
  // VPCS's template carries properties (its base script, ADR 0081): netemu makes its node from them too.
  return (SUPPORTED_NODE_TYPES as readonly string[]).includes(template.templateType);
}

/**
 * netemu's own built-in templates (ADR 0087): its Linux host, whose id is derived as GNS3 derives its
 * built-in ones, uuid3(NAMESPACE_DNS, "netemu_host") = LINUX_HOST_TEMPLATE_ID, so that it never changes.
 */
export const LINUX_HOST_TEMPLATE_ID = "49c9e132-ed0b-3d47-99ef-9c6b462e1c42";
const NETEMU_OWN_TEMPLATES: readonly RunnableTemplate[] = [
  { templateId: LINUX_HOST_TEMPLATE_ID, templateType: "netemu_host", name: "Linux host", defaultNameFormat: "Host{0}", category: "guest", symbol: ":/symbols/linux_guest.svg" },
];

/**
 * The templates netemu lists: only those whose nodes it runs (ADR 0062, VPCS since ADR 0081). Listing
 * Cloud or NAT would offer clients nodes that every use refuses.
 */
export const NETEMU_TEMPLATES: readonly RunnableTemplate[] = [...GNS3_BUILTIN_TEMPLATES.filter(isRunnable), ...NETEMU_OWN_TEMPLATES];

/**
 * A node name from a template's name format, as GNS3 allocates it: spaces removed, `{0}` (or `{id}`)
 * replaced by the first number from 1 giving a name not in `taken`. A format without a placeholder
 * is used as it is when free, else numbered after it.
 */
export function allocateNodeName(format: string, taken: ReadonlySet<string>): string {
  let base = format.replace(/ /g, "");
  if (!base.includes("{0}") && !base.includes("{id}")) {
    if (!taken.has(base)) return base;
    base = `${base}{0}`;
  }
  for (let n = 1; ; n++) {
    const name = base.replace(/\{0\}|\{id\}/g, String(n));
    if (!taken.has(name)) return name;
  }
}
