// A byte count as people read it: whole KiB below a MiB, whole MiB below a GiB, GiB above (one decimal below 10).
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export function sizeText(bytes: number): string {
  if (bytes >= GiB) {
    // Rounded first, then written: 9.96 GiB is "10 GiB", as 10 GiB is, not "10.0 GiB".
    const tenths = Math.round((bytes / GiB) * 10) / 10;
    return tenths < 10 ? `${tenths.toFixed(1)} GiB` : `${Math.round(bytes / GiB)} GiB`;
  }
  // Rounded up to a GiB, it is one: "1024 MiB" read as less than it is.
  if (bytes >= MiB) return Math.round(bytes / MiB) === 1024 ? "1.0 GiB" : `${Math.round(bytes / MiB)} MiB`;
  return `${Math.ceil(bytes / KiB)} KiB`;
}
