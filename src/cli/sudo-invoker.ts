// Who ran this command as root through sudo or doas: read before anything heavy loads, so plain root starts light.

/** The user who ran `sudo` or `doas`, when this process is root because of it; null otherwise (root by design too). */
export function sudoInvoker(uid: number | undefined, env: Record<string, string | undefined> = process.env): string | null {
  const invoker = env.SUDO_USER || env.DOAS_USER;
  return uid === 0 && invoker && invoker !== "root" ? invoker : null;
}
