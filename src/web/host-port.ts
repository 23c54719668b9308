// host:port as a URL takes it: an IPv6 address in brackets (http://[::1]:8765).

export const hostPort = (host: string, port: number | string): string => `${host.includes(":") ? `[${host}]` : host}:${port}`;
