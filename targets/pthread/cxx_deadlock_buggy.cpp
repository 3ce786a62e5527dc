/*
 * cxx_deadlock_buggy.cpp — deadlock in C++: two std::threads take two
 * std::mutexes in opposite orders (std::lock_guard each); one preemption
 * after the first thread's first lock lets the other take its second.
 * Fewest preemptions: 1.
 */
#include <mutex>
#include <thread>

static std::mutex accounts, audit;
static int balance = 100, entries;

int main() {
    std::thread transfer([] {
        std::lock_guard<std::mutex> a(accounts);
        std::lock_guard<std::mutex> b(audit);
        balance -= 10;
        entries++;
    });
    std::thread report([] {
        std::lock_guard<std::mutex> b(audit);
        std::lock_guard<std::mutex> a(accounts);
        entries += balance > 0;
    });
    transfer.join();
    report.join();
    return 0;
}
