// When this process reached the command line's entry (performance.now()): the start before it is the runtime's own.
export const ENTRY_REACHED_MS = performance.now();
