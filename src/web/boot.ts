// The page's first script: dials the hub and asks for the open session's newest page at once
// (early.ts), then loads the rest of the page, which the HTML already preloads.
import { startEarly } from "./early.js";
import "./styles.css";

startEarly(window.location);
void import("./main.js");
