# A comment
// Another comment
/* A block
   comment */
terraform {
  required_version = ">= 1.0"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
    google = { source = "hashicorp/google", version = ">= 4" }
  }
}

provider "aws" {
  alias  = "west"
  region = "us-west-2"
}

locals {
  n      = 1 + 2 * 3 - 4 / 5 % 6
  cmp    = 1 < 2 && 2 <= 3 || 3 > 4 && 4 >= 5 || 1 == 1 && 1 != 2
  neg    = -1
  not    = !true
  f      = 1.5e3
  g      = 0.25
  e      = 1E-3
  s      = "a \"quoted\" \\ string\n\t\u00e9\U0001F600 $${not} %%{not}"
  t      = "hello ${var.name}!"
  d      = "%{ if var.x }yes%{ else }no%{ endif }"
  l      = "%{ for i, v in var.list ~}${i}=${v} %{~ endfor }"
  strip  = "a ${~ "b" ~} c"
  nul    = null
  tup    = [1, "two", [3], { four = 4 },]
  obj    = { a = 1, "b" = 2, (local.k) = 3, c : 4 }
  multi  = {
    a = 1
    b = 2,
    c = 3
  }
  cond   = var.x ? "yes" : "no"
  nested = var.a ? var.b ? 1 : 2 : 3
  fort   = [for x in var.list : upper(x) if x != ""]
  foro   = { for k, v in var.map : k => v... if v != null }
  splat  = var.list[*].id
  splat2 = var.list.*.id
  idx    = var.list[0].name["key"]
  legacy = var.list.0.name
  call   = concat(var.a, var.b...)
  ns     = provider::aws::arn_parse("arn")
  paren  = (1 + 2) * 3
  uni    = var.naïve
  dash   = var.foo-bar
  hd     = <<EOT
heredoc ${var.x}
%{ if true }line%{ endif }
EOT
  hd2    = <<-EOT
    indented
      more
    EOT
}

resource "aws_instance" "web" {
  provider = aws.west
  ami      = "ami-123"

  tags = {
    Name = "web"
  }

  lifecycle {
    create_before_destroy = true
  }

  dynamic "ebs" {
    for_each = var.disks
    content {
      size = ebs.value
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}

data "aws_ami" "x" {}
one "line" { a = 1 }
ident_label x y { }
