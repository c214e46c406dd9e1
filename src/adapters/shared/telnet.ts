// Telnet (RFC 854/855) bytes.
const IAC = 255, DONT = 254, DO = 253, WONT = 252, WILL = 251, SB = 250, SE = 240;
const ECHO = 1, SGA = 3;

/**
 * The client side of a node's telnet console, as the web console relay and `netemu lab exec` both speak it:
 * telnet commands stripped from what the node sends (even split across chunks; a doubled 255 is a data
 * byte, a subnegotiation is skipped whole) and, when answering, the node's option requests answered as a
 * terminal that lets the node echo and suppress go-ahead and refuses every other option, each request once
 * so no negotiation loop can start.
 */
export class TelnetLine {
  private state: "data" | "iac" | "option" | "sb" | "sb-iac" = "data";
  private verb = 0;
  private readonly answered = new Set<number>();

  /**
   * `answering` false strips the commands and answers nothing: for a VPCS whose console netemu serves as
   * VPCS's own, which reads a reply's bytes as keys typed.
   */
  constructor(private readonly answering = true) {}

  /** The data bytes out of what the node sent, and the answers to send back to it. */
  receive(chunk: Buffer): { readonly text: Buffer; readonly answers: Buffer } {
    const text: number[] = [];
    const answers: number[] = [];
    for (const b of chunk) {
      switch (this.state) {
        case "data":
          if (b === IAC) this.state = "iac";
          else text.push(b);
          break;
        case "iac":
          if (b === IAC) {
            text.push(IAC);
            this.state = "data";
          } else if (b >= WILL && b <= DONT) {
            this.verb = b;
            this.state = "option";
          } else this.state = b === SB ? "sb" : "data"; // other two-byte commands (NOP, GA, ...) carry nothing
          break;
        case "option":
          if (this.answering) answers.push(...this.answer(this.verb, b));
          this.state = "data";
          break;
        case "sb":
          if (b === IAC) this.state = "sb-iac";
          break;
        case "sb-iac":
          this.state = b === SE ? "data" : "sb";
          break;
      }
    }
    return { text: Buffer.from(text), answers: Buffer.from(answers) };
  }

  /** Data as telnet sends it: a 255 byte doubled, so the node reads it as data. */
  static send(data: Buffer): Buffer {
    if (!data.includes(IAC)) return data;
    const out: number[] = [];
    for (const b of data) out.push(...(b === IAC ? [IAC, IAC] : [b]));
    return Buffer.from(out);
  }

  /** The reply to one option request: none to WONT/DONT (the option is off, as wanted) or to a request already answered. */
  private answer(verb: number, option: number): number[] {
    const reply = verb === WILL ? (option === ECHO || option === SGA ? DO : DONT) : verb === DO ? WONT : undefined;
    const key = verb * 256 + option;
    if (reply === undefined || this.answered.has(key)) return [];
    this.answered.add(key);
    return [IAC, reply, option];
  }
}
