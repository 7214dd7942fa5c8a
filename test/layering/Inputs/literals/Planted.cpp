// A planted violation for hardware-literals.test: not compiled.
int rowsOfTile(int rows) {
  int tile = 128; // the partitions, written as a literal
  const char *why = "128 in a string is text, not a number";
  return rows < tile ? rows : tile; // 512 in a comment is fine
}
int bank() { return 2048; } // heuristic: planted exception, allowed
