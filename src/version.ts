// The package version, read once from package.json at build time (inlined by `bun build --compile`).
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
