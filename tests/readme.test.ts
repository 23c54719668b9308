// The README is the contract: every variable and command it must document is there, and its set-up commands run as written.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EnvSchema } from "../src/config/schema.ts";
import { freePort, makeHome, removeHome } from "./support/daemon.ts";

const ROOT = join(import.meta.dir, "..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string>; scripts: Record<string, string> };

describe("README", () => {
  test("documents every environment variable the daemon reads", () => {
    for (const name of Object.keys(EnvSchema.shape)) expect(readme).toContain(`\`${name}\``);
  });

  test("documents every command", () => {
    for (const command of ["serve", "doctor", "mint-client", "token create --name NAME", "token list", "token revoke NAME"]) {
      expect(readme).toContain(`hermes-mcp ${command}`);
    }
  });

  test("its test command is the one .ci/run runs, and its run command is a package script", () => {
    expect(readme).toContain("npm install -g bun@1.4.5 && bun install --frozen-lockfile && bun test");
    expect(readme).toContain("npm install -g bun@1.4.5 && bun install --frozen-lockfile && bun run start");
    expect(ci).toContain("npm install -g bun@1.4.5");
    expect(ci).toContain("bun install --frozen-lockfile");
    expect(ci).toMatch(/^bun test$/m);
    expect(pkg.scripts.start).toContain("serve");
    expect(pkg.bin["hermes-mcp"]).toBe("src/cli/index.ts");
    expect(existsSync(join(ROOT, pkg.bin["hermes-mcp"] as string))).toBe(true);
  });

  test("the files it points at exist", () => {
    for (const path of ["packaging/systemd/hermes-mcp.service", "packaging/launchd/com.hermes-mcp.plist", "packaging/env.example", "THREAT_MODEL.md", "tests/support/fake-gateway.ts"]) {
      expect(existsSync(join(ROOT, path))).toBe(true);
    }
    const unit = readFileSync(join(ROOT, "packaging/systemd/hermes-mcp.service"), "utf8");
    expect(readme).toContain("install -Dm755 dist/hermes-mcp ~/.local/bin/hermes-mcp");
    expect(unit).toContain("ExecStart=%h/.local/bin/hermes-mcp serve");
    expect(pkg.scripts.build).toContain("--outfile dist/hermes-mcp");
  });

  test("`bun run start` serves on loopback with no configuration, and `bun run hermes-mcp doctor` runs", async () => {
    const home = makeHome();
    const port = freePort();
    const env = { HOME: home, PATH: process.env.PATH ?? "", BIND_PORT: String(port) };
    const proc = Bun.spawn([process.execPath, "run", "start"], { cwd: ROOT, env, stdout: "ignore", stderr: "pipe" });
    try {
      let ok = false;
      for (let i = 0; i < 200 && !ok; i++) {
        ok = (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok ?? false;
        if (!ok) await Bun.sleep(25);
      }
      expect(ok).toBe(true);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    const doctor = Bun.spawnSync([process.execPath, "run", "hermes-mcp", "doctor"], { cwd: ROOT, env: { ...env, BIND_PORT: String(freePort()) }, stdout: "pipe" });
    expect(doctor.stdout.toString()).toContain("configuration valid");
    removeHome(home);
  });

  test("`hermes-mcp mint-client >> env` leaves only env lines in the file", async () => {
    const home = makeHome();
    const result = Bun.spawnSync([process.execPath, "run", "hermes-mcp", "mint-client"], { cwd: ROOT, env: { HOME: home, PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
    const lines = result.stdout.toString().trim().split("\n");
    expect(lines.every((line) => /^OAUTH_CLIENT_(ID|SECRET)=\S+$/.test(line))).toBe(true);
    removeHome(home);
  });
});
