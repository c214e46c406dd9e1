import { expect } from "chai";
import { ProjectEventHub } from "../../../src/application/project-event-hub.js";
import type { ControllerEvent, ProjectEvent } from "../../../src/application/ports/project-events.js";
import { createProject } from "../../../src/domain/topology/project.js";

const log = (projectId: string, message: string): ProjectEvent => ({ kind: "log", projectId, severity: "info", message });

describe("ProjectEventHub: the controller's events to their listeners", () => {
  it("hands a project's event to that project's listeners only, and a controller event to the controller's only", () => {
    const hub = new ProjectEventHub();
    const a: ProjectEvent[] = [];
    const b: ProjectEvent[] = [];
    const controller: ControllerEvent[] = [];
    hub.subscribeProject("a", (e) => a.push(e));
    hub.subscribeProject("b", (e) => b.push(e));
    hub.subscribeController((e) => controller.push(e));
    const project = createProject("a", "lab", "/p");
    hub.publish(log("a", "one"));
    hub.publish({ kind: "project.closed", project });
    expect(a).to.deep.equal([log("a", "one")]);
    expect(b).to.deep.equal([]);
    expect(controller).to.deep.equal([{ kind: "project.closed", project }]);
  });

  it("goes on to the other listeners when one throws", () => {
    const hub = new ProjectEventHub();
    const got: string[] = [];
    hub.subscribeProject("a", () => {
      throw new Error("a broken client");
    });
    hub.subscribeProject("a", (e) => got.push(e.kind));
    hub.publish(log("a", "one"));
    expect(got).to.deep.equal(["log"]);
  });

  it("stops telling a listener once it unsubscribed, one function subscribed twice being two listeners, and forgets an empty project", () => {
    const hub = new ProjectEventHub();
    let calls = 0;
    const listener = () => void (calls += 1);
    const first = hub.subscribeProject("a", listener);
    const second = hub.subscribeProject("a", listener);
    hub.publish(log("a", "twice"));
    first();
    hub.publish(log("a", "once"));
    second();
    hub.publish(log("a", "never"));
    expect(calls).to.equal(3);
    expect(hub.listenerCount).to.equal(0);
  });

  it("lets a listener unsubscribe while it is being told, the others still told", () => {
    const hub = new ProjectEventHub();
    const got: string[] = [];
    const stop = hub.subscribeProject("a", () => {
      got.push("first");
      stop();
    });
    hub.subscribeProject("a", () => got.push("second"));
    hub.publish(log("a", "one"));
    hub.publish(log("a", "two"));
    expect(got).to.deep.equal(["first", "second", "second"]);
  });
});
