import { createSocket } from "node:dgram";

/**
 * A load source in a process of its own (so the data plane's event loop is not the sender's):
 * `node udp-blaster.js <bind port> <to port> <frames> <bytes> <frames per second>` sends that many
 * broadcast Ethernet frames from 127.0.0.1:<bind port>, paced in bursts every 10 ms, then prints
 * `{"sent":n,"seconds":s}` and exits.
 */
const [bindPort, toPort, frames, bytes, rate] = process.argv.slice(2).map(Number) as [number, number, number, number, number];
const frame = Buffer.alloc(bytes, 0x5a);
frame.fill(0xff, 0, 6);
frame.set([0x02, 0, 0, 0, 0, 0x01], 6);
frame.writeUInt16BE(0x0800, 12);
const socket = createSocket("udp4");
socket.bind(bindPort, "127.0.0.1", () => {
  socket.connect(toPort, "127.0.0.1", () => {
    const started = performance.now();
    const perBurst = Math.max(1, Math.round(rate / 100));
    let sent = 0;
    const burst = (): void => {
      const due = Math.min(frames, Math.round(((performance.now() - started) / 1000) * rate) + perBurst);
      while (sent < due) {
        socket.send(frame);
        sent++;
      }
      if (sent < frames) setTimeout(burst, 10);
      else
        setTimeout(() => {
          process.stdout.write(JSON.stringify({ sent, seconds: (performance.now() - started) / 1000 }));
          socket.close();
        }, 50);
    };
    burst();
  });
});
