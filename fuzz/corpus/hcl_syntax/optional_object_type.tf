variable "x" {
  type = list(object({
    a = optional(string, "x")
    b = optional(list(object({ c = optional(map(string), {}) })), [])
  }))
  default = []
}
