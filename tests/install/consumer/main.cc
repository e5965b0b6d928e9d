#include <ackstall/core/chunk_policy.h>

#include <cstdio>

int main() {
  const ackstall::core::ChunkPolicy p(ackstall::core::PolicyKind::seed, {8192, 1448, true});
  const auto plan = p.plan(8192);
  std::printf("%zu chunks\n", plan.size());
  return plan.size() == 2 && plan[0] == 5792 && plan[1] == 2400 ? 0 : 1;
}
