# End-to-end fixture: a file that does not parse; the server must keep working for others.
class Broken(nn.Module:
    def __init__(self
        self.fc = nn.Linear(4,
    for for in in ::
        x = ((((
)))) ]] }}
def
