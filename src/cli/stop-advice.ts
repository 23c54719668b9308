// How the owner stops or restarts the hermes-mcp that holds a database: the service manager's command when the service runs it, Ctrl-C or kill when started by hand.
import { readFileSync } from "node:fs";
import type { DaemonHolder } from "../store/daemon-lock.ts";
import { LAUNCHD_LABEL, SERVICE_NAME } from "./service-units.ts";

/** Who started the daemon holding the lock, as far as this machine can tell. */
export type Starter = "systemd user" | "systemd system" | "launchd" | "by hand" | "unknown";

/** What the machine says about a process: its systemd cgroup (Linux), the LaunchAgent's pid (macOS). */
export interface StarterProbe {
  platform: NodeJS.Platform;
  uid: number;
  /** /proc/PID/cgroup, or null when it cannot be read (the process is gone, or there is no /proc). */
  cgroupOf(pid: number): string | null;
  /** The pid launchd has for our LaunchAgent; null when it runs none; "unknown" when launchctl cannot say. */
  launchdPid(uid: number): number | null | "unknown";
}

const systemProbe: StarterProbe = {
  platform: process.platform,
  uid: process.getuid?.() ?? 0,
  cgroupOf(pid) {
    try {
      return readFileSync(`/proc/${pid}/cgroup`, "utf8");
    } catch {
      return null;
    }
  },
  launchdPid(uid) {
    try {
      const printed = Bun.spawnSync(["launchctl", "print", `gui/${uid}/${LAUNCHD_LABEL}`], { stderr: "pipe", timeout: 2000 });
      if (printed.exitCode === 0) {
        const pid = /^\s*pid = (\d+)$/m.exec(printed.stdout.toString())?.[1];
        return pid === undefined ? null : Number(pid);
      }
      // "Could not find service": no agent. A timeout, or no gui/ domain (an ssh-only session), tells nothing.
      return /could not find service/i.test(`${printed.stdout}${printed.stderr}`) ? null : "unknown";
    } catch {
      return "unknown";
    }
  },
};

/** What the machine said of each holder (one doctor run asks several checks' worth; launchctl takes up to 2 s). */
const told = new Map<string, Starter>();

/** Whether the holder runs as our service (the unit `service install` writes) or was started some other way. */
export function starterOf(holder: DaemonHolder | null, probe: StarterProbe = systemProbe): Starter {
  if (holder === null) return "unknown";
  if (probe !== systemProbe) return askedOf(holder, probe);
  const key = `${holder.pid} ${holder.started_at}`;
  const starter = told.get(key) ?? askedOf(holder, probe);
  told.set(key, starter);
  return starter;
}

function askedOf(holder: DaemonHolder, probe: StarterProbe): Starter {
  if (probe.platform === "linux") {
    const cgroup = probe.cgroupOf(holder.pid);
    if (cgroup === null) return "unknown";
    // A systemd unit's processes sit in a cgroup named after it: …/user@1000.service/app.slice/hermes-mcp.service for
    // the user unit `service install` writes, /system.slice/hermes-mcp.service for one an administrator wrote.
    const unit = cgroup.split("\n").find((line) => line.endsWith(`/${SERVICE_NAME}.service`));
    if (unit === undefined) return "by hand";
    return unit.includes("/user@") ? "systemd user" : "systemd system";
  }
  if (probe.platform === "darwin") {
    const pid = probe.launchdPid(probe.uid);
    return pid === "unknown" ? "unknown" : pid === holder.pid ? "launchd" : "by hand";
  }
  return "by hand";
}

/** Whether the daemon runs as the user's service, the one `service install` writes (and restarts). */
export const isTheService = (starter: Starter): boolean => starter === "systemd user" || starter === "launchd";

/** A daemon known not to be the user's service (started by hand, or by a system unit): the service cannot start beside it. */
export const keepsTheServiceFromStarting = (starter: Starter): boolean => starter === "by hand" || starter === "systemd system";

/** The service manager's command that stops (or restarts) the service on this platform. */
function serviceCommand(probe: StarterProbe, starter: Starter, action: "stop" | "restart"): string {
  if (starter === "systemd system") return `\`sudo systemctl ${action} ${SERVICE_NAME}\``;
  if (probe.platform !== "darwin") return `\`systemctl --user ${action} ${SERVICE_NAME}\``;
  return action === "stop"
    ? `\`launchctl bootout gui/${probe.uid}/${LAUNCHD_LABEL}\` (\`hermes-mcp service install\` starts it again)`
    : `\`launchctl kickstart -k gui/${probe.uid}/${LAUNCHD_LABEL}\``;
}

/** Ctrl-C, or the command that ends `holder`'s process. */
function stopByHand(holder: DaemonHolder | null, probe: StarterProbe): string {
  if (holder === null) return "Ctrl-C where it runs";
  return `Ctrl-C in the terminal where it runs, or \`${probe.platform === "win32" ? `taskkill /PID ${holder.pid}` : `kill ${holder.pid}`}\``;
}

/** What stops this daemon, given who started it: the words after "stop it first". */
export function howToStop(holder: DaemonHolder | null, probe: StarterProbe = systemProbe): string {
  const starter = starterOf(holder, probe);
  if (starter !== "by hand" && starter !== "unknown") return `it runs as a service: ${serviceCommand(probe, starter, "stop")}`;
  const byHand = stopByHand(holder, probe);
  return starter === "by hand" ? byHand : `${byHand}; if it runs as the service, ${serviceCommand(probe, starter, "stop")}`;
}

/** What restarts this daemon, given who started it: the words after "restart it:". */
export function howToRestart(holder: DaemonHolder | null, probe: StarterProbe = systemProbe): string {
  const starter = starterOf(holder, probe);
  if (starter !== "by hand" && starter !== "unknown") return serviceCommand(probe, starter, "restart");
  const byHand = `stop it (${stopByHand(holder, probe)}) and start \`hermes-mcp serve\` again`;
  return starter === "by hand" ? byHand : `${serviceCommand(probe, starter, "restart")} for the service, or ${byHand}`;
}
