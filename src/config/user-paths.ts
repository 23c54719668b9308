// Where this user's files live, with no schema loaded: serve's relaunch reads the env files before anything else.
import { homedir } from "node:os";
import { join } from "node:path";

/** Where this user's files live: HOME, XDG_CONFIG_HOME and XDG_DATA_HOME honoured (XDG Base Directory spec). */
export function userPaths(env: Record<string, string | undefined> = process.env): {
  home: string;
  dataHome: string;
  userEnvFile: string;
  hermesEnvFile: string;
} {
  const home = env.HOME || homedir();
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  return {
    home,
    dataHome: env.XDG_DATA_HOME || join(home, ".local", "share"),
    userEnvFile: join(configHome, "hermes-mcp", "env"),
    hermesEnvFile: join(home, ".hermes", ".env"),
  };
}
