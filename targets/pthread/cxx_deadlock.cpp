/*
 * cxx_deadlock.cpp — the twin of cxx_deadlock_buggy.cpp: both threads take
 * the two mutexes with one std::scoped_lock, which never holds one while
 * it waits for the other.
 */
#include <mutex>
#include <thread>

static std::mutex accounts, audit;
static int balance = 100, entries;

int main() {
    std::thread transfer([] {
        std::scoped_lock both(accounts, audit);
        balance -= 10;
        entries++;
    });
    std::thread report([] {
        std::scoped_lock both(audit, accounts);
        entries += balance > 0;
    });
    transfer.join();
    report.join();
    return 0;
}
