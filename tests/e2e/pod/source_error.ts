/** Throws the error every reader of the sources uses. */
export function sourceError(message: string): never {
  throw new Error(`Cannot derive the pod from the repository: ${message}`);
}
