// A command as a shell would need it typed: each word quoted only when it must be, so printed commands paste as they are.

export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export const shellCommand = (argv: string[]): string => argv.map(shellWord).join(" ");
