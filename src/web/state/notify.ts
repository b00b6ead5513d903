// A browser notification when an agent waits for an answer and the page is not in view
// (only once the user allowed notifications).
import type { Params } from "../acp/hub-client.js";

export function notifyWaiting(params: Params): void {
  if (
    typeof Notification === "undefined" ||
    Notification.permission !== "granted"
  )
    return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  const call = params["toolCall"] as { title?: unknown } | undefined;
  const title = typeof call?.title === "string" ? call.title : "an action";
  new Notification("acphub: an agent is waiting for you", {
    body: `Permission asked for ${title}`,
    tag: "acphub-permission",
  });
}

/** Asks the browser for notification permission (call from a click). */
export async function enableNotifications(): Promise<boolean> {
  if (typeof Notification === "undefined") return false;
  return (await Notification.requestPermission()) === "granted";
}
