// The hub's gateways: one per agent, created and initialized once however many ask at once,
// all sharing the hub's ledger, its engine events and its fan-out editor.
import type { Gateway } from "../engine/gateway.js";
import type { EngineEvents } from "../engine/events.js";
import type { EditorPort, LedgerPort } from "../engine/ports.js";
import type { TurnGate } from "../engine/turn-gate.js";
import { HubError } from "../shared/errors.js";

/** Builds a gateway over one agent (the hub initializes it and attaches its editor); its
 *  sessions' turns go through `turns`, the hub's one gate (`new SessionTable(turns)`). */
export type CreateGateway = (
  agentName: string,
  ledger: LedgerPort,
  turns: TurnGate,
) => Gateway | Promise<Gateway>;

export class GatewayPool {
  private readonly gateways = new Map<string, Promise<Gateway>>();
  /** The gateways created so far, for the idle sweep. */
  readonly ready = new Set<Gateway>();

  constructor(
    private readonly create: CreateGateway,
    private readonly ledger: LedgerPort,
    private readonly events: EngineEvents,
    private readonly editor: EditorPort,
    private readonly turns: TurnGate,
  ) {}

  // The gateway for an agent, created and initialized once however many ask at once.
  gatewayFor(agentName: string): Promise<Gateway> {
    let gateway = this.gateways.get(agentName);
    if (!gateway) {
      gateway = this.createGateway(agentName);
      this.gateways.set(agentName, gateway);
      gateway.catch(() => this.gateways.delete(agentName));
    }
    return gateway;
  }

  // The agent's gateway only when one was already asked for (a release creates none).
  existing(agentName: string): Promise<Gateway> | undefined {
    return this.gateways.get(agentName);
  }

  private async createGateway(agentName: string): Promise<Gateway> {
    const created = await this.create(agentName, this.ledger, this.turns);
    // One gate decides and cancels every turn of the hub (its busy rule, session/cancel).
    if (created.turns !== this.turns)
      throw new HubError(
        "INTERNAL",
        `the gateway of ${agentName} does not use the hub's turn gate`,
      );
    created.observe(this.events);
    created.attachEditor(this.editor);
    await created.initialize({ protocolVersion: 1, clientCapabilities: {} });
    this.ready.add(created);
    return created;
  }

  // Closes every gateway that started (one that failed to start has nothing to close).
  async close(): Promise<void> {
    const gateways = await Promise.allSettled(this.gateways.values());
    await Promise.allSettled(
      gateways.map((g) =>
        g.status === "fulfilled" ? g.value.close() : Promise.resolve(),
      ),
    );
  }
}
