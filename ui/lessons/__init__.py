"""File › Lessons: the guided lessons, played over the studio window."""
