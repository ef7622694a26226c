"""File → Debug my engine…: the learner's own Value class, checked in a child process."""
