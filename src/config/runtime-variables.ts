// The runtime's own variables (CA, proxy, TZ, JIT) that the env file may set: which, and why only these.

/**
 * The runtime's own variables hermes-mcp carries from the env file into its environment: the runtime reads them only
 * from the process's environment, at start, so they ride along on the relaunch, as systemd's EnvironmentFile= once put
 * them there (the environment still wins). Only these, and only from ~/.config/hermes-mcp/env — threat: a `./.env`
 * shipped in a cloned repository with LD_PRELOAD, BUN_OPTIONS or NODE_OPTIONS would run its code as the owner the
 * moment `serve` or `doctor` starts.
 */
export const RUNTIME_VARIABLE =
  /^(?:NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS_PROXY|https_proxy|HTTP_PROXY|http_proxy|NO_PROXY|no_proxy|TZ|BUN_JSC_[A-Za-z]+|BUN_GC_TIMER_DISABLE|BUN_GC_TIMER_INTERVAL)$/;
