import { expect } from "chai";
import { TelnetLine } from "../../../src/adapters/shared/telnet.js";

// Telnet (RFC 854/855) bytes, spelled out so each case reads as the node sends it.
const IAC = 255, DONT = 254, DO = 253, WONT = 252, WILL = 251, SB = 250, GA = 249, NOP = 241, SE = 240;
const ECHO = 1, SGA = 3, TERMINAL_TYPE = 24, NAWS = 31;

/** What a line made of a node's chunks, received one after the other: the data and the answers, each joined. */
function receiveAll(line: TelnetLine, ...chunks: number[][]): { text: number[]; answers: number[] } {
  const text: number[] = [];
  const answers: number[] = [];
  for (const chunk of chunks) {
    const got = line.receive(Buffer.from(chunk));
    text.push(...got.text);
    answers.push(...got.answers);
  }
  return { text, answers };
}

describe("a telnet line (the client side of a node's console)", () => {
  describe("negotiation", () => {
    it("lets the node echo and suppress go-ahead, and refuses every other option it offers", () => {
      const { answers } = receiveAll(new TelnetLine(), [IAC, WILL, ECHO, IAC, WILL, SGA, IAC, WILL, TERMINAL_TYPE]);
      expect(answers).to.deep.equal([IAC, DO, ECHO, IAC, DO, SGA, IAC, DONT, TERMINAL_TYPE]);
    });

    it("refuses every option the node asks it to take on", () => {
      const { answers } = receiveAll(new TelnetLine(), [IAC, DO, ECHO, IAC, DO, NAWS]);
      expect(answers).to.deep.equal([IAC, WONT, ECHO, IAC, WONT, NAWS]);
    });

    it("answers nothing to WONT and DONT: the option is off, as wanted", () => {
      const { text, answers } = receiveAll(new TelnetLine(), [IAC, WONT, ECHO, IAC, DONT, SGA, 72]);
      expect(answers).to.deep.equal([]);
      expect(text).to.deep.equal([72]);
    });

    it("answers each request once, so no negotiation loop can start", () => {
      const line = new TelnetLine();
      expect(receiveAll(line, [IAC, WILL, ECHO, IAC, DO, NAWS]).answers).to.have.length(6);
      expect(receiveAll(line, [IAC, WILL, ECHO], [IAC, DO, NAWS]).answers).to.deep.equal([]);
      // The same option under another verb is another request.
      expect(receiveAll(line, [IAC, DO, ECHO]).answers).to.deep.equal([IAC, WONT, ECHO]);
    });

    it("answers nothing when told not to, and still strips the commands (a VPCS console netemu serves as VPCS's own)", () => {
      const { text, answers } = receiveAll(new TelnetLine(false), [IAC, WILL, ECHO, 72, IAC, DO, NAWS, 105]);
      expect(answers).to.deep.equal([]);
      expect(Buffer.from(text).toString()).to.equal("Hi");
    });
  });

  describe("receiving", () => {
    it("passes data through untouched and drops the two-byte commands (NOP, GA)", () => {
      const { text, answers } = receiveAll(new TelnetLine(), [65, IAC, NOP, 66, IAC, GA, 67]);
      expect(Buffer.from(text).toString()).to.equal("ABC");
      expect(answers).to.deep.equal([]);
    });

    it("follows an option request split across chunks at every byte, and answers it once it is whole", () => {
      const line = new TelnetLine();
      expect(receiveAll(line, [65, IAC]).answers).to.deep.equal([]);
      expect(receiveAll(line, [WILL]).answers).to.deep.equal([]);
      const last = receiveAll(line, [ECHO, 66]);
      expect(last.answers).to.deep.equal([IAC, DO, ECHO]);
      expect(last.text).to.deep.equal([66]);
    });

    it("reads IAC IAC as one 255 data byte, also when the two are in different chunks", () => {
      expect(receiveAll(new TelnetLine(), [1, IAC, IAC, 2]).text).to.deep.equal([1, 255, 2]);
      expect(receiveAll(new TelnetLine(), [1, IAC], [IAC, 2]).text).to.deep.equal([1, 255, 2]);
    });

    it("skips a subnegotiation whole, a 255 doubled inside it and its end split across chunks included", () => {
      const line = new TelnetLine();
      const { text, answers } = receiveAll(line, [65, IAC, SB, TERMINAL_TYPE, 1, IAC, IAC, 9], [IAC], [SE, 66]);
      expect(Buffer.from(text).toString()).to.equal("AB");
      expect(answers).to.deep.equal([]);
    });

    it("does not take option bytes inside a subnegotiation for requests", () => {
      const { answers } = receiveAll(new TelnetLine(), [IAC, SB, NAWS, WILL, ECHO, IAC, SE]);
      expect(answers).to.deep.equal([]);
    });
  });

  describe("sending", () => {
    it("doubles every 255 byte so the node reads it as data", () => {
      expect([...TelnetLine.send(Buffer.from([1, 255, 2, 255]))]).to.deep.equal([1, 255, 255, 2, 255, 255]);
    });

    it("sends data without a 255 as it is", () => {
      const data = Buffer.from("ping 10.0.0.2\r\n");
      expect(TelnetLine.send(data).equals(data)).to.equal(true);
    });
  });
});
