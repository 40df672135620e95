/* bench_true: a static `true` for scripts/bench.sh: the smallest target a
 * sandbox can start, so that a benchmark measures the sandbox, not the
 * target. Exits 0 and does nothing else. */
int main(void)
{
	return 0;
}
