/**
 * Preloaded (`NODE_OPTIONS=--import=<this file>`) into a gateway that a test runs as a child
 * process: SIGUSR2 makes the process throw an exception nobody catches, a real fault for the
 * process guards to handle. Only tests load it; nothing in src/ reads a switch for it.
 */
process.on('SIGUSR2', () => {
  throw new Error('induced fault: SIGUSR2 to a process running the test preload');
});
