// sudo by mistake: root on the user's own folders is refused before anything is made there; on root's own, named.
import { describe, expect, test } from "bun:test";
import { chownSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rootVerdict } from "../../src/cli/root-guard.ts";
import { sudoInvoker } from "../../src/cli/sudo-invoker.ts";
import { loginName } from "../../src/login-name.ts";
import { runCli, tempHomes } from "../support/daemon.ts";

const home = tempHomes();
/** A folder that belongs to a user who is not root: chowned when the tests run as root, the runner's own otherwise. */
function usersFolder(): { path: string; uid: number } {
  const path = home();
  if (process.getuid?.() === 0) chownSync(path, 4242, 4242);
  return { path, uid: statSync(path).uid };
}
/** A HOME under / that does not exist: its nearest folder is root's everywhere. */
const rootsHome = (): string => join("/", `hermes-mcp-no-such-home-${process.pid}`);

describe("sudoInvoker (what decides whether the entry loads the guard at all)", () => {
  test("names the user behind sudo or doas when this process is root, and no one otherwise", () => {
    expect(sudoInvoker(0, { SUDO_USER: "alice", SUDO_UID: "1000" })).toBe("alice");
    expect(sudoInvoker(0, { DOAS_USER: "bob" })).toBe("bob");
    // Not root (sudo -u someone), root by design, root through sudo from root, and an empty variable: nobody to protect.
    expect(sudoInvoker(1000, { SUDO_USER: "alice" })).toBeNull();
    expect(sudoInvoker(0, {})).toBeNull();
    expect(sudoInvoker(0, { SUDO_USER: "root" })).toBeNull();
    expect(sudoInvoker(0, { SUDO_USER: "" })).toBeNull();
    expect(sudoInvoker(undefined, { SUDO_USER: "alice" })).toBeNull();
  });
});

describe("rootVerdict", () => {
  test("only root through sudo or doas gets one", () => {
    const user = usersFolder();
    expect(rootVerdict("token", 1000, { HOME: user.path, SUDO_USER: "alice" })).toEqual({ refusal: null, note: null });
    // Root by design (a system unit, a container on a mounted volume) is left alone, whoever owns its folders.
    expect(rootVerdict("serve", 0, { HOME: user.path })).toEqual({ refusal: null, note: null });
    expect(rootVerdict("serve", 0, { HOME: user.path, SUDO_USER: "root", SUDO_UID: "0" })).toEqual({ refusal: null, note: null });
  });

  test("sudo that kept the user's HOME is refused, naming the folder and the user", () => {
    const user = usersFolder();
    const verdict = rootVerdict("token", 0, { HOME: user.path, SUDO_USER: "alice", SUDO_UID: String(user.uid) });
    expect(verdict.note).toBeNull();
    expect(verdict.refusal).toBe(
      `hermes-mcp is running as root on ${user.path}, which belongs to alice: what it created there would belong to root, and the hermes-mcp that alice runs could no longer open it. Nothing was changed. Run it as alice, without sudo.`,
    );
    // An earlier sudo already made root's folders inside the user's: adding to them is refused all the same.
    mkdirSync(join(user.path, ".local", "share", "hermes-mcp"), { recursive: true });
    mkdirSync(join(user.path, ".config", "hermes-mcp"), { recursive: true });
    expect(rootVerdict("token", 0, { HOME: user.path, SUDO_USER: "alice", SUDO_UID: String(user.uid) }).refusal).toContain(
      "which belongs to alice",
    );
    // Someone else's folder (sudo -E from another account): named by uid. doas gives the name alone.
    expect(rootVerdict("token", 0, { HOME: user.path, SUDO_USER: "bob", SUDO_UID: "31337" }).refusal).toContain(
      `which belongs to the user with uid ${user.uid}`,
    );
    expect(rootVerdict("token", 0, { HOME: user.path, SUDO_USER: "bob", SUDO_UID: "31337" }).refusal).toContain(
      `Run it as that user (\`sudo -u '#${user.uid}' hermes-mcp …\`).`,
    );
    // doas names no uid: "alice" is no user of this machine, so the folder's owner is named by uid.
    expect(rootVerdict("jobs", 0, { HOME: user.path, DOAS_USER: "alice-not-a-user" }).refusal).toContain(
      `which belongs to the user with uid ${user.uid}`,
    );
  });

  test.skipIf(process.getuid?.() !== 0 || loginName(65534) !== "nobody")(
    "doas names its caller only: a folder of that user's names them",
    () => {
      const path = home();
      chownSync(path, 65534, 65534);
      expect(rootVerdict("jobs", 0, { HOME: path, DOAS_USER: "nobody" }).refusal).toContain(
        `running as root on ${path}, which belongs to nobody: what it created there would belong to root, and the hermes-mcp that nobody runs could no longer open it. Nothing was changed. Run it as nobody, without sudo.`,
      );
    },
  );

  test("a database path in the user's folders is refused even with root's own HOME, as the command would read it (~/ expanded)", () => {
    const user = usersFolder();
    const verdict = rootVerdict("serve", 0, {
      HOME: rootsHome(),
      HERMES_MCP_DB_PATH: join(user.path, "db", "hermes-mcp.db"),
      SUDO_USER: "alice",
      SUDO_UID: String(user.uid),
    });
    expect(verdict.refusal).toContain(`running as root on ${user.path}, which belongs to alice`);
    // ~/ is root's home here, whatever folder sudo ran in: no refusal, and the note names the file.
    const sudoEnv = { HOME: rootsHome(), SUDO_USER: "alice", SUDO_UID: String(user.uid) };
    const tilde = rootVerdict("serve", 0, { ...sudoEnv, HERMES_MCP_DB_PATH: "~/hermes/db.sqlite" }, user.path);
    expect(tilde.refusal).toBeNull();
    expect(tilde.note).toContain(`database (${join(rootsHome(), "hermes", "db.sqlite")})`);
    // A ./.env where sudo ran that points into the user's folders counts as the environment does.
    writeFileSync(join(user.path, ".env"), `HERMES_MCP_DB_PATH=${join(user.path, "db", "hermes-mcp.db")}\n`);
    expect(rootVerdict("serve", 0, sudoEnv, user.path).refusal).toContain(`running as root on ${user.path}, which belongs to alice`);
  });

  test("sudo with root's own HOME works on root's files, and says whose they are; a user service is refused", () => {
    const env = { HOME: rootsHome(), SUDO_USER: "alice", SUDO_UID: "1000" };
    expect(rootVerdict("token", 0, env)).toEqual({
      refusal: null,
      note: `running as root through sudo: this uses root's settings (${join(rootsHome(), ".config", "hermes-mcp", "env")}) and database (${join(rootsHome(), ".local", "share", "hermes-mcp", "hermes-mcp.db")}), not alice's. To work with alice's, run it without sudo.`,
    });
    expect(rootVerdict("service", 0, env).refusal).toBe(
      "a user service belongs to the user who installs it, and sudo reaches no user's service manager. Nothing was changed. Run `hermes-mcp service …` as alice, without sudo.",
    );
  });
});

// The command line itself runs as whoever runs the tests: as root it can play `sudo` keeping the user's HOME.
test.skipIf(process.getuid?.() !== 0)("as root through sudo on the user's HOME: token create refuses and makes nothing there", async () => {
  const user = usersFolder();
  const result = await runCli(["token", "create", "--name", "laptop"], {
    home: user.path,
    env: { SUDO_USER: "alice", SUDO_UID: String(user.uid) },
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`hermes-mcp is running as root on ${user.path}, which belongs to alice`);
  expect(result.stdout).toBe("");
  expect(existsSync(join(user.path, ".local"))).toBe(false);
  expect(existsSync(join(user.path, ".config"))).toBe(false);
  // Help still answers.
  expect((await runCli(["token", "--help"], { home: user.path, env: { SUDO_USER: "alice" } })).code).toBe(0);
});
