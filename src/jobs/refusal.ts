// The error a job submission is refused with: its message says why and what to do.
export class JobRefusedError extends Error {
  override name = "JobRefusedError";
}
