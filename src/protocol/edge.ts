// What every editor-facing handler does at the edge: turn acphub's errors into the SDK's
// RequestError (params arrive through protocol/raw's pass-through parser).
import { toRequestError } from "./to-request-error.js";

// Runs a handler and converts whatever it throws to a wire error.
export async function edge<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toRequestError(error);
  }
}
