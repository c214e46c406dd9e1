import type * as E from "fp-ts/lib/Either.js";

/** What runs a host node's own program (a VPCS): the program, its arguments, where, and where its output goes. */
export interface ProcessSpec {
  /** The node the process belongs to: at most one process per key. */
  readonly key: string;
  readonly program: string;
  readonly args: readonly string[];
  /** Its working directory, made when missing. */
  readonly cwd: string;
  /** Its standard output and error, replaced at each start (GNS3's `vpcs.log`). */
  readonly logFile: string;
  /**
   * Set for a program that daemonizes (VPCS before 0.6.1): the command exits at once, and the process
   * to track is the one with this UDP port bound, running the program in `cwd` (ADR 0088).
   */
  readonly daemon?: { readonly udpPort: number };
  /**
   * The ports a program that stays in the foreground listens on once it is up (a VPCS's console, TCP, and
   * its end of the tunnel, UDP): its start answers as soon as they are, not after a fixed wait.
   */
  readonly listens?: { readonly tcpPort: number; readonly udpPort: number };
}

/** A process that ended without being asked to: its code or signal, and what it wrote last. */
export interface ProcessExit {
  readonly key: string;
  readonly pid: number;
  /** Both null for a daemon, whose exit status goes to its parent (init), not to netemu. */
  readonly code: number | null;
  readonly signal: string | null;
  readonly output: string;
}

/**
 * The host processes behind host nodes (ADR 0081): started one per node, ended by their pid (never by
 * name), each death that nobody asked for reported once. An adapter holds the children; the use cases
 * never see one.
 */
export interface HostProcesses {
  /** Runs a program briefly and answers its output (a version probe); Left with the OS's reason when it cannot run. */
  probe(program: string, args: readonly string[], cwd: string): Promise<E.Either<string, string>>;
  /**
   * The program's file as it is now (its resolved path, device, inode, size and modification time), so a
   * probe's answer is kept only while the same file is there; undefined when no such program is found.
   */
  identify(program: string): Promise<string | undefined>;
  /** Writes a file a process will read (a startup script), making its directory. */
  writeFile(path: string, content: string): Promise<E.Either<string, void>>;
  /** Reads such a file; undefined when there is none. */
  readFile(path: string): Promise<string | undefined>;
  /** Starts the process; Left with the OS's reason (and what it wrote) when it could not be spawned or died at once. */
  start(spec: ProcessSpec): Promise<E.Either<string, { readonly pid: number }>>;
  /** Ends the key's process, if one runs: SIGTERM, SIGKILL after a grace period; resolves once it is gone. */
  stop(key: string): Promise<void>;
  /** The pid of the key's process, when one runs. */
  pidOf(key: string): number | undefined;
  /** Hears each process that ended on its own, until the returned function is called. */
  onExit(listener: (exit: ProcessExit) => void): () => void;
  /** Ends every process (shutdown). */
  stopAll(): Promise<void>;
}

/** TCP ports for host consoles, from GNS3's console range (5000 to 10000 by default). */
export interface ConsolePortPool {
  readonly range: { readonly start: number; readonly end: number };
  /** A free port of the range that can be bound now; Left when none is. */
  reserve(): Promise<E.Either<{ readonly start: number; readonly end: number }, number>>;
  /**
   * Marks a port as taken (a console a client asked for, or the one a project file names). Answers false
   * when it already was, or when another program holds it (a project opened then gets another, as GNS3's).
   */
  claim(port: number): Promise<boolean>;
  release(port: number): void;
  inUse(): readonly number[];
}
