// How the owner is told to stop or restart the daemon holding a database (the service manager, or Ctrl-C / kill), and doctor's questions to that daemon.
import { describe, expect, test } from "bun:test";
import { portCheck } from "../../src/cli/doctor-checks.ts";
import { askRunningDaemon, runningCodeVerdict } from "../../src/cli/doctor-running.ts";
import { loadConfig } from "../../src/config/load.ts";
import {
  howToRestart,
  howToStop,
  isTheService,
  keepsTheServiceFromStarting,
  type StarterProbe,
  starterOf,
} from "../../src/cli/stop-advice.ts";
import type { DaemonHolder } from "../../src/store/daemon-lock.ts";
import { ipv6Loopback } from "../support/daemon.ts";

const holder: DaemonHolder = { pid: 4242, host: "127.0.0.1", port: 8765, started_at: 0 };

const linux = (cgroup: string | null): StarterProbe => ({
  platform: "linux",
  uid: 1000,
  cgroupOf: (pid) => (pid === 4242 ? cgroup : null),
  launchdPid: () => {
    throw new Error("launchctl is not asked on Linux");
  },
});
const macos = (servicePid: number | null | "unknown"): StarterProbe => ({
  platform: "darwin",
  uid: 501,
  cgroupOf: () => {
    throw new Error("there is no /proc on macOS");
  },
  launchdPid: (uid) => (uid === 501 ? servicePid : null),
});

describe("who started the daemon holding the lock", () => {
  test("Linux: the user unit `service install` writes, a system unit of the same name, or anything else", () => {
    const user = linux("0::/user.slice/user-1000.slice/user@1000.service/app.slice/hermes-mcp.service\n");
    expect(starterOf(holder, user)).toBe("systemd user");
    expect(howToStop(holder, user)).toBe("it runs as a service: `systemctl --user stop hermes-mcp`");

    const system = linux("0::/system.slice/hermes-mcp.service\n");
    expect(starterOf(holder, system)).toBe("systemd system");
    expect(howToStop(holder, system)).toBe("it runs as a service: `sudo systemctl stop hermes-mcp`");

    // A terminal's session scope, a unit of another name (a tunnel's), a container's root: started some other way.
    for (const cgroup of [
      "0::/user.slice/user-1000.slice/session-3.scope\n",
      "0::/user.slice/user-1000.slice/user@1000.service/app.slice/hermes-mcp-ngrok.service\n",
      "0::/\n",
    ]) {
      expect(starterOf(holder, linux(cgroup))).toBe("by hand");
      expect(howToStop(holder, linux(cgroup))).toBe("Ctrl-C in the terminal where it runs, or `kill 4242`");
    }
  });

  test("macOS: the LaunchAgent's pid is the holder's, or it is not", () => {
    expect(starterOf(holder, macos(4242))).toBe("launchd");
    expect(howToStop(holder, macos(4242))).toBe(
      "it runs as a service: `launchctl bootout gui/501/com.hermes-mcp` (`hermes-mcp service install` starts it again)",
    );
    expect(starterOf(holder, macos(999))).toBe("by hand");
    expect(starterOf(holder, macos(null))).toBe("by hand");
    expect(howToStop(holder, macos(null))).toBe("Ctrl-C in the terminal where it runs, or `kill 4242`");
    // launchctl could not say (a timeout, an ssh session without a gui/ domain): not "by hand", which would refuse a
    // reinstall of the agent and advise a kill launchd undoes.
    expect(starterOf(holder, macos("unknown"))).toBe("unknown");
    expect(keepsTheServiceFromStarting(starterOf(holder, macos("unknown")))).toBe(false);
    expect(howToStop(holder, macos("unknown"))).toContain("if it runs as the service, `launchctl bootout gui/501/com.hermes-mcp`");
  });

  test("Windows has no kill: taskkill", () => {
    const windows: StarterProbe = { ...linux(null), platform: "win32" };
    expect(howToStop(holder, windows)).toBe("Ctrl-C in the terminal where it runs, or `taskkill /PID 4242`");
  });

  test("a holder that cannot be told (pid unknown, or gone by now) gets both ways", () => {
    expect(starterOf(null, linux(null))).toBe("unknown");
    expect(howToStop(null, linux(null))).toBe("Ctrl-C where it runs; if it runs as the service, `systemctl --user stop hermes-mcp`");
    expect(starterOf(holder, linux(null))).toBe("unknown");
    expect(howToStop(holder, linux(null))).toBe(
      "Ctrl-C in the terminal where it runs, or `kill 4242`; if it runs as the service, `systemctl --user stop hermes-mcp`",
    );
    expect(howToStop(null, macos(null))).toBe(
      "Ctrl-C where it runs; if it runs as the service, `launchctl bootout gui/501/com.hermes-mcp` (`hermes-mcp service install` starts it again)",
    );
  });

  test("only the user's own service is the one `service install` restarts", () => {
    expect(isTheService("systemd user")).toBe(true);
    expect(isTheService("launchd")).toBe(true);
    for (const starter of ["systemd system", "by hand", "unknown"] as const) expect(isTheService(starter)).toBe(false);
    // `service install` refuses beside one known not to be it; one that cannot be told apart is only warned about.
    expect((["systemd user", "systemd system", "launchd", "by hand", "unknown"] as const).filter(keepsTheServiceFromStarting)).toEqual([
      "systemd system",
      "by hand",
    ]);
  });

  test("restarting: the service manager's restart, or stop and start again by hand", () => {
    expect(howToRestart(holder, linux("0::/user.slice/user-1000.slice/user@1000.service/app.slice/hermes-mcp.service"))).toBe(
      "`systemctl --user restart hermes-mcp`",
    );
    expect(howToRestart(holder, linux("0::/system.slice/hermes-mcp.service"))).toBe("`sudo systemctl restart hermes-mcp`");
    expect(howToRestart(holder, macos(4242))).toBe("`launchctl kickstart -k gui/501/com.hermes-mcp`");
    expect(howToRestart(holder, linux("0::/"))).toBe(
      "stop it (Ctrl-C in the terminal where it runs, or `kill 4242`) and start `hermes-mcp serve` again",
    );
    expect(howToRestart(holder, linux(null))).toBe(
      "`systemctl --user restart hermes-mcp` for the service, or stop it (Ctrl-C in the terminal where it runs, or `kill 4242`) and start `hermes-mcp serve` again",
    );
  });
});

describe("doctor: is the running daemon the code installed now", () => {
  const same = { replacedExecutable: null, version: "0.5.0" };
  test("the same version from an untouched binary: nothing to say", () => {
    expect(runningCodeVerdict(holder, same, "0.5.0", "R")).toBeNull();
    // Not asked (no port yet, or it did not answer): nothing claimed either.
    expect(runningCodeVerdict(holder, { replacedExecutable: null, version: null }, "0.5.0", "R")).toBeNull();
  });

  test("another version, or a binary replaced on disk since it started: restart it", () => {
    expect(runningCodeVerdict(holder, { ...same, version: "0.4.9" }, "0.5.0", "`systemctl --user restart hermes-mcp`")).toEqual({
      ok: true,
      warn: true,
      title: "the running hermes-mcp (pid 4242) is version 0.4.9; this one is 0.5.0",
      detail: "if you upgraded, it runs the new version once restarted",
      fix: "restart it: `systemctl --user restart hermes-mcp`",
    });
    // This command older than the daemon (another copy on PATH): a restart would not help.
    expect(runningCodeVerdict(holder, { ...same, version: "0.10.0" }, "0.5.0", "R")).toEqual({
      ok: true,
      warn: true,
      title: "the running hermes-mcp (pid 4242) is version 0.10.0; this one is 0.5.0",
      fix: "check which hermes-mcp you ran (`command -v hermes-mcp`): it is older than the one running",
    });
    expect(runningCodeVerdict(holder, { ...same, replacedExecutable: "/home/u/.local/bin/hermes-mcp" }, "0.5.0", "R")).toEqual({
      ok: true,
      warn: true,
      title: "the running hermes-mcp (pid 4242) runs a binary since replaced at /home/u/.local/bin/hermes-mcp",
      detail: "an upgrade installed after it started takes effect when it restarts",
      fix: "restart it: R",
    });
  });
});

describe("doctor asks the running daemon where it listens", () => {
  test.if(ipv6Loopback())("its own address (IPv6 loopback included), or a wildcard's loopback", async () => {
    const asked: string[] = [];
    const server = Bun.serve({
      hostname: "::1",
      port: 0,
      fetch: (request) => {
        asked.push(request.headers.get("host") ?? "");
        return Response.json({ status: "ok", version: "9.9.9" });
      },
    });
    try {
      const at = (host: string) => ({ ...holder, host, port: server.port as number });
      expect(await askRunningDaemon(at("::1"), "/healthz")).toEqual({ status: "ok", version: "9.9.9" });
      expect(await askRunningDaemon(at("::"), "/healthz")).toEqual({ status: "ok", version: "9.9.9" });
      // A loopback Host name, which the Host guard accepts whatever BIND_HOST is.
      expect(asked).toEqual([`127.0.0.1:${server.port}`, `127.0.0.1:${server.port}`]);
      // Nothing listens on IPv4 loopback here: not asked, not guessed.
      expect(await askRunningDaemon(at("127.0.0.1"), "/healthz")).toBeNull();
      expect(await askRunningDaemon({ ...holder, port: null }, "/healthz")).toBeNull();
    } finally {
      server.stop(true);
    }
  });
});

describe("doctor's word on the daemon holding the database, beside BIND_HOST and BIND_PORT as this shell sees them", () => {
  const config = loadConfig({ env: { HOME: "/nonexistent-home", BIND_PORT: "8765" }, cwd: "/" }).config;
  const running: DaemonHolder = { pid: 4242, host: "127.0.0.1", port: 8765, started_at: 0 };

  test("where they say: ✔; another port or host: ⚠ naming both; a free port (0) asked for: any port will do", async () => {
    expect(await portCheck(config, running, { host: "127.0.0.1", port: 8765 })).toEqual({
      ok: true,
      title: "hermes-mcp is running on this database (pid 4242, port 8765 on 127.0.0.1)",
    });
    const otherPort = await portCheck(config, running, { host: "127.0.0.1", port: 9000 });
    expect(otherPort).toMatchObject({ ok: true, warn: true });
    expect(otherPort.detail).toStartWith("not on 127.0.0.1:9000 as BIND_HOST and BIND_PORT say here");
    const otherHost = await portCheck(config, running, { host: "::1", port: 8765 });
    expect(otherHost.detail).toStartWith("not on [::1]:8765 as BIND_HOST and BIND_PORT say here");
    expect((await portCheck(config, running, { host: "127.0.0.1", port: 0 })).warn).toBeUndefined();
    expect((await portCheck(config, running, { host: "0.0.0.0", port: 0 })).detail).toStartWith("not on 0.0.0.0:<a free port>");
  });
});
