a = "x %{~ if b ~} y %{~ endif ~} z"
