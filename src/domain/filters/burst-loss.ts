import { type RandomSource, chance } from "./random.js";

/**
 * The Gilbert-Elliott two-state loss model of ONE direction of a link end, as netem's `loss gemodel
 * p r 1-h 1-k`: a frame is lost with the loss chance of the state the link is in when it arrives
 * (`lossBad`, `lossGood`, in %), and after each frame the link goes from good to bad with chance `p`
 * and from bad to good with chance `r` (%). Long-run loss = (p·lossBad + r·lossGood) / (p + r); with
 * lossBad 100 and lossGood 0 a burst of losses lasts 1/r frames on average (r in 0..1).
 */
export class GilbertElliott {
  private bad = false;

  constructor(
    private readonly p: number,
    private readonly r: number,
    private readonly lossBad: number,
    private readonly lossGood: number,
  ) {}

  /** Starts in the state `previous` (the model this one replaces) is in: a bad stretch goes on (ADR 0055). */
  resumeFrom(previous: GilbertElliott | undefined): this {
    if (previous !== undefined) this.bad = previous.bad;
    return this;
  }

  /** Whether the link is in its bad state: carried when a node moves (ADR 0069). */
  get inBadState(): boolean {
    return this.bad;
  }
  set inBadState(bad: boolean) {
    this.bad = bad === true;
  }

  /** Whether this frame is lost; moves the model on by one frame. */
  loses(random: RandomSource): boolean {
    // netem draws the transition first, then the loss in the state the frame arrived in.
    const wasBad = this.bad;
    if (wasBad ? chance(random, this.r) : chance(random, this.p)) this.bad = !wasBad;
    return chance(random, wasBad ? this.lossBad : this.lossGood);
  }
}
