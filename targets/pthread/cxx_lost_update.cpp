/*
 * cxx_lost_update.cpp — the twin of cxx_lost_update_buggy.cpp: the counter
 * is a std::atomic, each increment one fetch_add (a preemption point that
 * no other thread can split).
 */
#include <atomic>
#include <cassert>
#include <cstdio>
#include <thread>

static const int THREADS = 2, INCREMENTS = 3;

static std::atomic<long> counter;

int main() {
    std::thread t[THREADS];
    for (auto &thread : t)
        thread = std::thread([] {
            for (int i = 0; i < INCREMENTS; i++) counter.fetch_add(1);
        });
    for (auto &thread : t) thread.join();
    std::printf("counter = %ld\n", counter.load());
    assert(counter.load() == THREADS * INCREMENTS);
    return 0;
}
