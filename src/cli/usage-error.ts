// A mistake in how a command was called: exit 2 with the command's help, as opposed to a refused
// operation (exit 1). Its own module so that what parses options (the store, the command's flags)
// can throw it without importing the command machinery.
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
