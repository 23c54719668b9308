// A byte count as people read it: whole KiB below a MiB, whole MiB below a GiB, GiB above (one decimal below 10).
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export function sizeText(bytes: number): string {
  if (bytes >= GiB) {
    const gib = bytes / GiB;
    return gib < 10 ? `${(Math.round(gib * 10) / 10).toFixed(1)} GiB` : `${Math.round(gib)} GiB`;
  }
  // Rounded up to a GiB, it is one: "1024 MiB" read as less than it is.
  if (bytes >= MiB) return Math.round(bytes / MiB) === 1024 ? "1.0 GiB" : `${Math.round(bytes / MiB)} MiB`;
  return `${Math.ceil(bytes / KiB)} KiB`;
}
