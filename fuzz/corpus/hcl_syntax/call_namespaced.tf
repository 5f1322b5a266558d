a = provider::aws::f(1)
