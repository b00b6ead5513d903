// The web page's entry point: one store (one connection to the hub) and the app.
import "./zod-jitless.js";
import { render } from "preact";
import { HubStore } from "./state/hub-store.js";
import { App } from "./ui/app.js";
import "./styles.css";

const store = new HubStore();
render(<App store={store} />, document.getElementById("app")!);
