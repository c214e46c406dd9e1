import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Refusal } from "../../errors.js";
import { type ComputeView, ListComputes } from "./list-computes.js";

/** What GetCompute can answer instead of its result. */
export const GET_COMPUTE_REFUSALS = ["ComputeNotFound"] as const;
export type GetComputeError = Refusal<typeof GET_COMPUTE_REFUSALS>;

/** GET /v2/computes/{compute_id}: only "local" exists. */
@injectable()
export class GetCompute {
  constructor(private readonly computes: ListComputes) {}

  execute({ computeId }: { readonly computeId: string }): E.Either<GetComputeError, ComputeView> {
    const compute = this.computes.execute().find((c) => c.computeId === computeId);
    return compute === undefined ? E.left({ _tag: "ComputeNotFound", computeId }) : E.right(compute);
  }
}
