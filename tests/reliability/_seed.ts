/** The seed of a scenario's random choices: KUBELOOP_SEED to replay a run, else a fresh one (printed). */
export function scenarioSeed(): number {
  const fixed = Deno.env.get("KUBELOOP_SEED");
  return fixed ? Number(fixed) : Math.floor(Math.random() * 2 ** 31);
}
