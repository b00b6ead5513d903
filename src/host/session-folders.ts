// The working folders of each open session: its cwd (the workspace that permissions are
// remembered for) and the roots its file and terminal requests are confined to.
import type { SessionFolders } from "../contracts/client-host.js";

export class SessionFolderBook {
  private readonly folders = new Map<
    string,
    SessionFolders & { extra: boolean }
  >();

  /**
   * @param extraRoots roots from config, allowed in every session…
   * @param extraWhen …whose cwd this accepts (a hub: not the sessions in members' folders).
   */
  constructor(
    private readonly extraRoots: readonly string[] = [],
    private readonly extraWhen: (cwd: string) => boolean = () => true,
  ) {}

  start(sessionId: string, folders: SessionFolders): void {
    this.folders.set(sessionId, {
      ...folders,
      extra: this.extraWhen(folders.cwd),
    });
  }

  end(sessionId: string): void {
    this.folders.delete(sessionId);
  }

  // The session's cwd, its additional folders, then the configured roots (where granted).
  rootsOf(sessionId: string): string[] {
    const f = this.folders.get(sessionId);
    return [
      ...(f ? [f.cwd, ...(f.additionalDirectories ?? [])] : []),
      ...(!f || f.extra ? this.extraRoots : []),
    ];
  }

  /** The session's cwd, or "" for a session acphub was not told about. */
  workspaceOf(sessionId: string): string {
    return this.folders.get(sessionId)?.cwd ?? "";
  }
}
