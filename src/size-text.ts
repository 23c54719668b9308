// A byte count as people read it: whole KiB below a MiB, whole MiB above.
export const sizeText = (bytes: number): string =>
  bytes >= 1048576 ? `${Math.round(bytes / 1048576)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
