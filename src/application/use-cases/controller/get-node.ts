import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { ControllerNode } from "../../../domain/topology/node.js";
import type { NetemuError } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

@injectable()
export class GetNode {
  constructor(private readonly lookup: ControllerLookup) {}

  execute(projectId: string, nodeId: string): Promise<E.Either<NetemuError, ControllerNode>> {
    return this.lookup.node(projectId, nodeId);
  }
}
