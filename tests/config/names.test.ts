// Naming mistaken settings: the closest real name for an unknown variable or flag, and which unknown variables are reported.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { closestSetting, unknownVariableWarnings } from "../../src/config/names.ts";

const dirs: string[] = [];
const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "hermes-mcp-names-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("closestSetting", () => {
  test.each([
    ["HERMES_MCP_PORT", "BIND_PORT"],
    ["HERMES_MCP_HOST", "BIND_HOST"],
    ["port", "BIND_PORT"],
    ["host", "BIND_HOST"],
    ["issuer", "OAUTH_ISSUER_URL"],
    ["OAUTH_ISSUER", "OAUTH_ISSUER_URL"],
    ["db", "HERMES_MCP_DB_PATH"],
    ["model", "HERMES_MODEL"],
    ["HERMES_MCP_LOG_LEVEL", "LOG_LEVEL"],
    ["HERMES_MCP_MAX_CONCURENT_JOBS", "HERMES_MCP_MAX_CONCURRENT_JOBS"],
    ["HERMES_API_KY", "HERMES_API_KEY"],
    ["bind-port", "BIND_PORT"],
    ["frobnicate", null],
  ])("%s → %s", (name, expected) => {
    expect(closestSetting(name)).toBe(expected);
  });
});

describe("unknown variables", () => {
  const fromEnv = (values: Record<string, string>) => unknownVariableWarnings([{ label: "the environment", values, shared: true }]);
  const fromFile = (values: Record<string, string>) => unknownVariableWarnings([{ label: "env", values, shared: false }]);

  test("our own prefixes are always reported, with the setting meant when there is one", () => {
    expect(fromEnv({ HERMES_MCP_PORT: "1" })).toEqual([
      "HERMES_MCP_PORT (in the environment) is not a hermes-mcp setting and is ignored — did you mean BIND_PORT?",
    ]);
    expect(fromEnv({ HERMES_MCP_FROBNICATE: "1" })[0]).toContain("is ignored; the settings are listed in the README's Configuration table");
    expect(fromEnv({ BIND_ADRESS: "1" })[0]).toContain("BIND_ADRESS");
  });

  test("shared prefixes in the environment: only clear typos of ours, never Hermes's own variables or other programs'", () => {
    expect(
      fromEnv({ HERMES_HOME: "/x", HERMES_PROFILE: "p", HERMES_PORT: "1", MCP_TIMEOUT: "10", MCP_TOOL_TIMEOUT: "10", OAUTH_TOKEN: "t" }),
    ).toEqual([]);
    expect(fromEnv({ HERMES_MODLE: "m" })[0]).toContain("did you mean HERMES_MODEL?");
    expect(fromEnv({ MCP_ALLOWED_HOST: "h" })[0]).toContain("did you mean MCP_ALLOWED_HOSTS?");
    expect(fromEnv({ OAUTH_ISSUER: "https://x" })[0]).toContain("did you mean OAUTH_ISSUER_URL?");
  });

  test("in an env file (ours), a name with a shared prefix is reported when it suggests a setting", () => {
    expect(fromFile({ HERMES_PORT: "1" })[0]).toContain("did you mean BIND_PORT?");
    expect(fromFile({ OAUTH_WHATEVER: "1" })[0]).toContain("OAUTH_WHATEVER (in env) is not a hermes-mcp setting");
    expect(fromFile({ HERMES_HOME: "/x", PATH: "/bin", API_SERVER_KEY: "k" })).toEqual([]);
  });

  test("in hermes-mcp's own env file every unknown name is reported, whatever its prefix or case; its runtime variables are not", () => {
    const own = (values: Record<string, string>) => unknownVariableWarnings([{ label: "env", values, shared: false, own: true }]);
    expect(own({ LOG_LEVLE: "debug" })).toEqual([
      "LOG_LEVLE (in env) is not a hermes-mcp setting and is ignored — did you mean LOG_LEVEL?",
    ]);
    expect(own({ bind_port: "9000" })[0]).toContain("did you mean BIND_PORT?");
    expect(own({ Oauth_Issuer_Url: "https://x" })[0]).toContain("did you mean OAUTH_ISSUER_URL?");
    expect(own({ PORT: "9000" })[0]).toContain("did you mean BIND_PORT?");
    expect(own({ API_SERVER_KEY: "k" })[0]).toContain("did you mean HERMES_API_KEY?");
    expect(own({ HERMES_URL: "http://x" })[0]).toContain("HERMES_URL (in env) is not a hermes-mcp setting");
    expect(own({ NODE_EXTRA_CA_CERTS: "/ca.pem", https_proxy: "http://p", TZ: "UTC", BUN_JSC_useJIT: "0", HERMES_HOME: "/h" })).toEqual([]);
  });

  test("a variable HERMES_MCP_HERMES_ENV passes on by name is used, so never reported as ignored (the own env file's rule spared it)", () => {
    const home = dir();
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(
      join(home, ".config", "hermes-mcp", "env"),
      "HERMES_MCP_HERMES_ENV=TELEGRAM_BOT_TOKEN,HERMES_SHOWN=1\nTELEGRAM_BOT_TOKEN=123:abc\nTELEGRAM_CHAT=9\n",
    );
    const { config, warnings } = loadConfig({ env: { HOME: home, HERMES_API_KEY: "k" }, cwd: dir() });
    expect(config.messaging.env).toEqual({ TELEGRAM_BOT_TOKEN: "123:abc", HERMES_SHOWN: "1" });
    // The name it passes is spared; a name beside it that nothing reads is still said.
    expect(warnings.filter((warning) => warning.includes("is not a hermes-mcp setting"))).toEqual([
      expect.stringContaining("TELEGRAM_CHAT (in "),
    ]);
  });

  test("loadConfig warns once per variable, naming the file it is in", () => {
    const home = dir();
    const cwd = dir();
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(join(home, ".config", "hermes-mcp", "env"), "HERMES_MCP_PORT=9000\nBIND_PORT=9001\n");
    writeFileSync(join(cwd, ".env"), "HERMES_MCP_PORT=9002\n");
    const { config, warnings } = loadConfig({ env: { HOME: home, HERMES_API_KEY: "k" }, cwd });
    expect(config.bind.port).toBe(9001);
    expect(warnings).toEqual([
      `HERMES_MCP_PORT (in ${join(cwd, ".env")}) is not a hermes-mcp setting and is ignored — did you mean BIND_PORT?`,
    ]);
  });
});
