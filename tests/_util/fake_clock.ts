// Moved to lib/testing (the test kit users get); re-exported for the tests that import it from here.
export { FakeClock, flush } from "../../lib/testing/mod.ts";
