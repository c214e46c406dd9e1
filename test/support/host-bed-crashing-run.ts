import { freeUdpPort, HostBed } from "./host-bed.js";

/**
 * A test run that dies without cleaning up: it opens a bed, adds one host, prints its namespace, TAP
 * and socat pid as one JSON line, and waits to be killed (SIGKILL: no `after` runs).
 */
const bed = await HostBed.open();
const host = await bed.addHost("10.12.0.1/24", await freeUdpPort());
console.log(JSON.stringify({ namespace: host.namespace, tap: host.tap, socatPid: host.bridgePid }));
setInterval(() => undefined, 1000);
