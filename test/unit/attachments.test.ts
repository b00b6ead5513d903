// Who is attached to which hub session: a disconnect leaves nothing of the client behind, in
// any of its sessions, and a forgotten session nothing of its clients.
import { describe, expect, it } from "vitest";
import { Attachments, type HubClient } from "../../src/hub/attachments.js";

function client(id: string): HubClient {
  return {
    id,
    closed: false,
    notify: () => undefined,
    request: () => Promise.reject(new Error("not asked here")),
  };
}

describe("Attachments", () => {
  it("a disconnect detaches the client from every session it had, and only it", () => {
    const a = new Attachments();
    const [one, two] = [client("one"), client("two")];
    for (const c of [one, two]) a.addClient(c);
    for (const s of ["s1", "s2", "s3"]) a.attach(s, one);
    a.attach("s2", two);
    a.setOwner("s1", one);
    a.setOwner("s2", two);
    a.setWatchOnly("s3", one, true);
    a.detach(one, "s3");
    expect(a.isAttached("s3", one)).toBe(false);
    expect(a.isAttached("s1", one)).toBe(true);
    a.detach(one);
    for (const s of ["s1", "s2", "s3"])
      expect(a.isAttached(s, one)).toBe(false);
    expect(a.owner("s1")).toBeUndefined();
    expect(a.owner("s2")).toBe(two);
    expect(a.attached("s2").map((x) => x.client.id)).toEqual(["two"]);
    expect(a.sessionCount).toBe(1);
    expect(a.allClients.map((c) => c.id)).toEqual(["two"]);
    // Back again, it starts afresh: no session, no watch-only mark left from before.
    a.attach("s3", one);
    expect(a.mayAnswer("s3", one)).toBe(true);
    a.detach(one);
    expect(a.isAttached("s3", one)).toBe(false);
  });

  it("a forgotten session keeps no mark of its clients (attached again, a viewer no longer)", () => {
    const a = new Attachments();
    const one = client("one");
    a.attach("s1", one);
    a.attach("s2", one);
    a.setWatchOnly("s1", one, true);
    expect(a.mayAnswer("s1", one)).toBe(false);
    a.forgetSession("s1");
    expect(a.isAttached("s1", one)).toBe(false);
    a.attach("s1", one);
    expect(a.mayAnswer("s1", one)).toBe(true);
    a.detach(one);
    expect(a.sessionCount).toBe(0);
  });
});
