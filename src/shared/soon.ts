// `fn` in a microtask, as queueMicrotask would run it, through a resolved promise's `then`: Node's
// queueMicrotask makes an AsyncResource and a bound function on every call, and the relay calls
// this once per session per committed batch (and /metrics once per group of appends). A throw
// in `fn` is an unhandled rejection, as one in any promise reaction is.
const resolved = Promise.resolve();

export function soon(fn: () => void): void {
  void resolved.then(fn);
}
