/*
 * netemu's own data-plane worker, counting the frames each of its sockets gives the kernel
 * (send-counting-data-plane-worker.ts) and running out of memory on a node named "oom..."
 * (heap-hog-data-plane-worker.ts): a worker that dies while its links are counted.
 */
import "./send-counting-data-plane-worker.js";
import "./heap-hog-data-plane-worker.js";
