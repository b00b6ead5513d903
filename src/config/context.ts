// What every part built from config needs: the loaded config with its paths, and a logger.
import type { Logger } from "../shared/logger.js";
import type { LoadedConfig } from "./load.js";

export interface AppContext extends LoadedConfig {
  logger: Logger;
}
