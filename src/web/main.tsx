// The page's app: one store (one connection to the hub, the one boot.ts dialled first) and
// the app.
import { render } from "preact";
import { HubStore } from "./state/hub-store.js";
import { App } from "./ui/app.js";

const store = new HubStore();
render(<App store={store} />, document.getElementById("app")!);
