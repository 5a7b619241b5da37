// kapla command-line entry point.
#include <iostream>

int main() {
  std::cout << "kapla " << KAPLA_VERSION << "\n";
  return 0;
}
