/**
 * The outcome of a gRPC call as its error code: `OK` when it succeeds, else the code of the
 * AppError the client rejected with (it mirrors the gRPC status name, e.g. `PERMISSION_DENIED`).
 * Anything else is rethrown.
 */
export async function callCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'OK';
  } catch (error) {
    if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
    throw error;
  }
}
