a = {
  b = [
    for x in [1, 2] : {
      c = "${x}-${join(",", [for y in [x] : y])}"
      d = x > 1 ? { e = f(x) } : null
    }
  ]
  g = <<-EOF
    ${a.b[*].c}
    %{ for k in [1] }
    ${k}
    %{ endfor }
    EOF
}
